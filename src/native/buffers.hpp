// Arrays at the Python boundary. An output buffer is used as it is, never converted: a converted
// copy would take the core's writes and the caller's array would stay untouched. Anything else is
// refused with an error that names the argument, what it must be and what it is.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace chess_envs::buffers {

namespace nb = nanobind;

template <class T>
using Array = nb::ndarray<T, nb::numpy, nb::c_contig, nb::device::cpu>;

template <class T>
constexpr const char* dtype_name() {
    using U = std::remove_const_t<T>;
    if constexpr (std::is_same_v<U, float>) return "float32";
    else if constexpr (std::is_same_v<U, double>) return "float64";
    else if constexpr (std::is_same_v<U, bool>) return "bool";
    else if constexpr (std::is_same_v<U, std::uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<U, std::int8_t>) return "int8";
    else if constexpr (std::is_same_v<U, std::int32_t>) return "int32";
    else return "int64";
}

// "a float64 array of shape (3, 4), not C-contiguous" or "a list".
inline std::string describe(nb::handle object) {
    nb::object dtype = nb::getattr(object, "dtype", nb::none()), shape = nb::getattr(object, "shape", nb::none());
    if (dtype.is_none() || shape.is_none()) return std::string("a ") + nb::type_name(object.type()).c_str();
    std::string text = std::string("a ") + nb::str(dtype).c_str() + " array of shape " + nb::str(shape).c_str();
    nb::object flags = nb::getattr(object, "flags", nb::none());
    if (!flags.is_none()) {
        if (!nb::cast<bool>(flags.attr("c_contiguous"))) text += ", not C-contiguous";
        if (!nb::cast<bool>(flags.attr("writeable"))) text += ", read-only";
    }
    return text;
}

// `object` as an array of T with `size` elements, without conversion. Writable unless T is const.
template <class T>
Array<T> exact(nb::handle object, std::size_t size, const char* what) {
    Array<T> array;
    if (!nb::try_cast(object, array, false))
        throw nb::type_error((std::string(what) + " must be a " + (std::is_const_v<T> ? "" : "writable ") +
                              "C-contiguous " + dtype_name<T>() + " numpy array, got " + describe(object))
                                 .c_str());
    if (array.size() != size)
        throw std::invalid_argument(std::string(what) + " has " + std::to_string(array.size()) +
                                    " elements, expected " + std::to_string(size));
    return array;
}

}  // namespace chess_envs::buffers
