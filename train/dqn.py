"""Masked DQN training on stable-baselines3, one readable file: set-up, opponents, callbacks, learn.

    python -m train.dqn --preset smoke                       # a few thousand steps, under a minute
    python -m train.dqn --preset los_alamos --minutes 30     # the baseline against a random opponent
    python -m train.dqn --preset los_alamos --resume         # continue runs/<run-name>

The learner plays one seat of the game in each of ``envs`` environments (seats alternate), the
other seats moved by the opponent: ``random``, ``greedy``, or ``self`` (a frozen copy of the
learner, refreshed every ``self_play_refresh`` steps). Rewards are the game's outcome, plus,
with ``--shaping`` and ``--draw-reward``, a material reward and a price on draws
(:class:`MaterialShaping`). Epsilon decays linearly from
``exploration_initial_eps`` to ``exploration_final_eps`` over ``exploration_fraction`` of the
steps. A run folder ``runs/<run_name>/`` holds ``args.json``, SB3's TensorBoard events and
``progress.csv`` (with ``eval/score_vs_random`` and ``eval/score_vs_greedy``) and
``checkpoints/``: the model and the replay buffer of one step (``model_<step>.pt``,
``replay_<step>.npz``), the ``manifest.json`` that names them, and ``last.pt`` to play with.
No file of a run is loaded with pickle.
"""

from __future__ import annotations

import copy
import json
import time
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv
from tqdm import tqdm

from agents.dqn import LIMITS as NETWORK_LIMITS
from agents.dqn import (
    MASK,
    PLANES,
    CompactReplayBuffer,
    DQNCheckpointError,
    MaskableDQN,
    q_action,
    restore_model,
    save_model,
)
from agents.simple import GreedyAgent, RandomAgent
from chess_envs.core import GameState
from chess_envs.files import remove_stale_temporaries, write_atomic, write_text_atomic
from chess_envs.gym_env import GameEnv
from chess_envs.registry import game_class, game_names, get_game, new_state
from evaluate.game import play_game
from train.cli import arg, check_args, check_memory, fail, parse_args, prepare_run_dir

OPPONENTS = ("random", "greedy", "self")
RUN_FORMAT = "chess_envs.dqn-run/1"


@dataclass
class Args:
    game: str = arg("los_alamos", "game to learn: " + ", ".join(game_names()))
    preset: str = arg("", "the preset these defaults came from")
    run_name: str = arg("dqn", "run folder name under runs_dir")
    runs_dir: str = arg("runs", "where run folders live")
    resume: bool = arg(False, "continue the run from its last checkpoint (start it if there is none yet)")
    seed: int = arg(0, "seed of every random number generator")
    device: str = arg("auto", "auto (CUDA when present), cpu or cuda")
    # opponents and environments
    opponent: str = arg("random", "who moves the other seats: random, greedy or self (frozen copy of the learner)")
    self_play_refresh: int = arg(10_000, "with opponent=self: steps between copies of the learner")
    envs: int = arg(2, "environments stepped together (the learner's seat alternates between them)")
    max_plies: int = arg(150, "an episode this long is cut (a draw)")
    shaping: float = arg(0.0, "weight of the material reward (0: rewards from outcomes only)")
    draw_reward: float = arg(0.0, "reward for a drawn or cut game (below 0: contempt for draws)")
    cut_is_draw: bool = arg(True, "a game cut at max_plies ends as a draw (no bootstrap past the cut)")
    # network
    filters: int = arg(64, "convolution filters of the planes CNN")
    layers: int = arg(3, "3x3 convolutions of the planes CNN")
    hidden: int = arg(256, "hidden units of the value MLP in the dueling Q head")
    # DQN
    total_steps: int = arg(300_000, "environment steps to train for (all envs together)")
    minutes: float = arg(0.0, "stop after this many minutes of training (0: no limit)")
    learning_rate: float = arg(5e-4, "Adam learning rate")
    buffer_size: int = arg(200_000, "replay transitions kept")
    learning_starts: int = arg(5_000, "warm-up steps of uniformly random legal moves before learning")
    batch_size: int = arg(128, "transitions per gradient step")
    gamma: float = arg(0.99, "discount per move of the learner")
    n_steps: int = arg(1, "moves summed into each TD target (n-step returns)")
    double_q: bool = arg(True, "Double DQN target: the online network picks, the target network scores")
    train_freq: int = arg(4, "environment steps between gradient steps")
    gradient_steps: int = arg(1, "gradient steps each time")
    target_update_interval: int = arg(2_000, "steps between copies to the target network")
    exploration_fraction: float = arg(0.3, "share of the run over which epsilon decays")
    exploration_initial_eps: float = arg(1.0, "epsilon at the start")
    exploration_final_eps: float = arg(0.05, "epsilon after the decay")
    # bookkeeping
    checkpoint_every: int = arg(20_000, "steps between checkpoints")
    eval_every: int = arg(20_000, "steps between evaluations against random and greedy (0: never)")
    eval_games: int = arg(20, "games per evaluation against each baseline")
    progress: bool = arg(True, "show a progress bar")

    def __post_init__(self) -> None:
        get_game(self.game)  # ValueError naming the known games
        if self.opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {self.opponent!r}")
        if game_class(self.game).num_players != 2:
            raise ValueError(f"the DQN baseline plays two-player games, not {self.game!r}")
        for name in ("envs", "total_steps", "batch_size", "buffer_size", "checkpoint_every", "train_freq", "n_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.exploration_final_eps <= self.exploration_initial_eps <= 1.0:
            raise ValueError("need 0 <= exploration_final_eps <= exploration_initial_eps <= 1")
        check_args(self, {"envs": 256, "batch_size": 65_536, **NETWORK_LIMITS})
        space = GameEnv(self.game).observation_space
        check_memory(
            f"a replay buffer of {self.buffer_size:,} transitions",
            self.buffer_size * CompactReplayBuffer.bytes_per_transition(space),
        )


PRESETS = {
    "smoke": dict(
        filters=16,
        layers=2,
        hidden=64,
        total_steps=3_000,
        buffer_size=5_000,
        learning_starts=500,
        batch_size=32,
        target_update_interval=500,
        checkpoint_every=1_000,
        eval_every=1_500,
        eval_games=4,
        max_plies=60,
    ),
    "los_alamos": dict(
        game="los_alamos",
        opponent="random",
        total_steps=400_000,
        shaping=0.5,
        draw_reward=-0.5,
        learning_rate=2.5e-4,
        exploration_fraction=0.1,
        target_update_interval=8_000,
        eval_every=50_000,
    ),
    "chess": dict(
        game="chess",
        opponent="random",
        total_steps=1_000_000,
        buffer_size=300_000,
        max_plies=200,
        filters=96,
        layers=4,
        hidden=512,
    ),
}


class FrozenOpponent:
    """A frozen copy of the learner's Q-network playing the other seats (self-play)."""

    name = "self"

    def __init__(self, model: MaskableDQN, epsilon: float = 0.05, seed: int = 0) -> None:
        self.model = copy.copy(model)
        self.model.policy = copy.deepcopy(model.policy).to("cpu")
        self.model.policy.set_training_mode(False)
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)

    def refresh(self, model: MaskableDQN) -> None:
        self.model.policy.load_state_dict(model.policy.state_dict())

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        if self.rng.random() < self.epsilon:
            return int(self.rng.choice(state.legal_actions()))
        return q_action(self.model.policy, state)


class ModelAgent:
    """The learner as an evaluate Agent (greedy over legal moves)."""

    name = "dqn"

    def __init__(self, model: MaskableDQN) -> None:
        self.model = model

    def reset(self, seed: int | None = None) -> None:
        """Nothing carried between games."""

    def select_action(self, state: GameState) -> int:
        return q_action(self.model.policy, state)


class MaterialShaping(gym.Wrapper):
    """Rewards for material and a price on draws, on top of the game's outcome.

    Each step adds ``weight * (phi(s') - phi(s))``, ``phi`` the learner's material minus the
    opponent's in tens of pawns, so a capture pays at once and a lost piece costs; a game that
    ends drawn (or is cut at ``max_plies``) pays ``draw_reward``. This is NOT potential-based
    shaping (nothing is given back at the end): it tilts the learner towards winning material
    and away from draws, the way a player with contempt for draws plays a weaker opponent.
    """

    def __init__(self, env: GameEnv, weight: float, draw_reward: float) -> None:
        super().__init__(env)
        self.weight, self.draw_reward = weight, draw_reward
        self._phi = 0.0

    def _potential(self) -> float:
        material = self.env.unwrapped.state.material()
        seat = self.env.unwrapped.agent_seat
        return float(2 * material[seat] - material.sum()) / 10.0

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self._phi = self._potential()
        return observation, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        phi = self._potential()
        shaped = float(reward) + self.weight * (phi - self._phi)
        if (terminated or truncated) and reward == 0:  # a draw, or a game cut at max_plies
            shaped += self.draw_reward
        self._phi = phi
        return observation, shaped, terminated, truncated, info


class CutIsDraw(gym.Wrapper):
    """A game cut at ``max_plies`` ends there, as the evaluation scores it: a draw.

    Gymnasium calls the cut a truncation, after which SB3 bootstraps from the next position as
    if the game went on; here the game is over, so the learner's values stay those of the game
    it is scored on (the observation holds the ply count, so the cut is visible to it).
    """

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, reward, terminated or truncated, False, info


def make_env(args: Args, seat: int, opponent: object):
    def build() -> gym.Env:
        env: gym.Env = GameEnv(args.game, opponent=opponent, agent_seat=seat, max_plies=args.max_plies)
        if args.shaping or args.draw_reward:
            env = MaterialShaping(env, args.shaping, args.draw_reward)
        return CutIsDraw(env) if args.cut_is_draw else env

    return build


def evaluate_scores(model: MaskableDQN, args: Args, games: int) -> dict[str, float]:
    """Score (win 1, draw 1/2) of the greedy learner against random and greedy, seats alternating."""
    agent = ModelAgent(model)
    scores = {}
    for name, opponent in (("random", RandomAgent(seed=args.seed)), ("greedy", GreedyAgent(seed=args.seed))):
        total = 0.0
        for game in range(games):
            seats = [agent, opponent] if game % 2 == 0 else [opponent, agent]
            record = play_game(args.game, seats, new_state(args.game).to_text(), max_plies=args.max_plies)
            total += record.scores[game % 2]
        scores[f"eval/score_vs_{name}"] = total / games
    return scores


class TrainingCallback(BaseCallback):
    """Checkpoints, evaluations, self-play refreshes, the time limit and the progress bar."""

    def __init__(self, args: Args, run_dir: Path, opponent: FrozenOpponent | None) -> None:
        super().__init__()
        self.args = args
        self.run_dir = run_dir
        self.opponent = opponent
        self.started = time.monotonic()
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(
            total=self.args.total_steps, initial=self.num_timesteps, unit="step", disable=not self.args.progress
        )

    def _on_step(self) -> bool:
        args, steps = self.args, self.num_timesteps
        self.bar.update(steps - self.bar.n)
        every = lambda period: period and steps // period > (steps - self.training_env.num_envs) // period  # noqa: E731
        if self.opponent is not None and every(args.self_play_refresh):
            self.opponent.refresh(self.model)
        if every(args.eval_every):
            scores = evaluate_scores(self.model, args, args.eval_games)
            for key, value in scores.items():
                self.logger.record(key, value)
            self.logger.dump(steps)
            self.bar.set_postfix({key.split("_vs_")[1]: round(value, 2) for key, value in scores.items()})
        if every(args.checkpoint_every):
            save_run(self.model, self.run_dir)
        return not (args.minutes and time.monotonic() - self.started >= args.minutes * 60)

    def _on_training_end(self) -> None:
        self.bar.close()


MANIFEST = "manifest.json"


def _replay_arrays(buffer: CompactReplayBuffer) -> dict[str, np.ndarray]:
    """The buffer's storage, by the names its file uses."""
    return {
        "observation": buffer.observations[PLANES],
        "action_mask": buffer.observations[MASK],
        "next_observation": buffer.next_observations[PLANES],
        "next_action_mask": buffer.next_observations[MASK],
        "actions": buffer.actions,
        "rewards": buffer.rewards,
        "dones": buffer.dones,
        "timeouts": buffer.timeouts,
    }


def save_replay(buffer: CompactReplayBuffer, path: Path, step: int) -> Path:
    """The replay buffer as an ``.npz`` of plain arrays (loaded without pickle), written atomically."""
    arrays = {**_replay_arrays(buffer), "position": np.array([buffer.pos, int(buffer.full), step], dtype=np.int64)}
    return write_atomic(path, lambda handle: np.savez(handle, **arrays))


def load_replay(buffer: CompactReplayBuffer, path: Path) -> int:
    """Fill ``buffer`` from :func:`save_replay`'s file, checking every shape; returns the file's step."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in (*_replay_arrays(buffer), "position")}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise DQNCheckpointError(f"{path} is not a readable replay file: {error}") from None
    targets = _replay_arrays(buffer)
    for key, target in targets.items():
        if arrays[key].shape != target.shape or arrays[key].dtype != target.dtype:
            raise DQNCheckpointError(
                f"{path}: {key} is {arrays[key].dtype}{list(arrays[key].shape)}, this run's buffer holds "
                f"{target.dtype}{list(target.shape)} (another --buffer-size or --envs?)"
            )
    position, full, step = (int(v) for v in arrays["position"])
    if not 0 <= position < buffer.buffer_size:
        raise DQNCheckpointError(f"{path}: position {position} is outside the buffer")
    for key, target in targets.items():
        target[...] = arrays[key]
    buffer.pos, buffer.full = position, bool(full)
    return step


def save_run(model: MaskableDQN, run_dir: Path) -> Path:
    """Model and replay as one unit: both files are named by their step, then ``manifest.json``,
    which names them, is renamed into place last. A kill at any moment leaves the previous
    manifest and its files, or the new ones. ``last.pt``, for playing, is a copy of the model."""
    folder = run_dir / "checkpoints"
    step = model.num_timesteps
    model_file, replay_file = f"model_{step:010d}.pt", f"replay_{step:010d}.npz"
    save_model(model, folder / model_file)
    save_replay(model.replay_buffer, folder / replay_file, step)
    manifest = {"format": RUN_FORMAT, "step": step, "model": model_file, "replay": replay_file}
    write_text_atomic(folder / MANIFEST, json.dumps(manifest, indent=2))
    last = folder / "last.pt"
    write_atomic(last, lambda handle: handle.write((folder / model_file).read_bytes()))
    for old in [*folder.glob("model_*.pt"), *folder.glob("replay_*.npz")]:
        if old.name not in (model_file, replay_file):
            old.unlink(missing_ok=True)
    return last


def read_manifest(folder: Path) -> dict:
    """The checkpoint manifest of a run, checked: it names a model and a replay file of one step."""
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        names = (manifest["model"], manifest["replay"])
        step = manifest["step"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DQNCheckpointError(f"{path} is not a readable manifest: {error}") from None
    if manifest.get("format") != RUN_FORMAT or not isinstance(step, int):
        raise DQNCheckpointError(f"{path} is not a chess_envs DQN run manifest")
    for name in names:
        if not isinstance(name, str) or Path(name).name != name or not (folder / name).is_file():
            raise DQNCheckpointError(f"{path} names {name!r}, which is not a file in {folder}")
    return manifest


def restore_run(model: MaskableDQN, run_dir: Path) -> None:
    """Load the manifest's model and replay into ``model``; refuse a pair from different steps."""
    folder = run_dir / "checkpoints"
    manifest = read_manifest(folder)
    meta = restore_model(model, folder / manifest["model"])
    replay_step = load_replay(model.replay_buffer, folder / manifest["replay"])
    if not meta["step"] == replay_step == manifest["step"]:
        raise DQNCheckpointError(
            f"{folder}: the manifest says step {manifest['step']}, its model is from step {meta['step']} and its "
            f"replay from step {replay_step}; they must be one save"
        )


def build_model(args: Args, env: DummyVecEnv, device: str) -> MaskableDQN:
    return MaskableDQN(
        env=env,
        game=args.game,
        learning_rate=args.learning_rate,
        buffer_size=args.buffer_size,
        learning_starts=args.learning_starts,
        batch_size=args.batch_size,
        gamma=args.gamma,
        n_steps=args.n_steps,
        double_q=args.double_q,
        train_freq=args.train_freq,
        gradient_steps=args.gradient_steps,
        target_update_interval=args.target_update_interval,
        exploration_fraction=args.exploration_fraction,
        exploration_initial_eps=args.exploration_initial_eps,
        exploration_final_eps=args.exploration_final_eps,
        policy_kwargs=dict(
            features_extractor_kwargs=dict(filters=args.filters, layers=args.layers),
            net_arch=[args.hidden],
        ),
        seed=args.seed,
        device=device,
    )


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, PRESETS, argv, description=__doc__.splitlines()[0])
    run_dir = Path(args.runs_dir) / args.run_name
    folder = run_dir / "checkpoints"
    started = (folder / MANIFEST).exists()
    if (folder / "last.zip").exists() and not started:
        fail(f"{run_dir} holds a checkpoint in the old pickled SB3 format; start a new --run-name")
    if started and not args.resume:
        fail(f"{run_dir} already holds a run; pass --resume or choose another --run-name")
    prepare_run_dir(run_dir)
    for stale in remove_stale_temporaries(folder):
        print(f"removed {stale.name}, left by a save that was interrupted")
    device = args.device if args.device != "auto" else "cuda" if torch.cuda.is_available() else "cpu"
    # The self-play opponent needs the model and the env needs the opponent: build the
    # environments around a placeholder that is pointed at the frozen copy once it exists.
    slot: dict[str, object] = {}
    opponent: object = args.opponent if args.opponent == "random" else GreedyAgent(seed=args.seed)
    if args.opponent == "self":
        opponent = lambda state: slot["player"].select_action(state)  # noqa: E731
    env = DummyVecEnv([make_env(args, seat % 2, opponent) for seat in range(args.envs)])
    model = build_model(args, env, device)
    if started:
        try:
            restore_run(model, run_dir)
        except DQNCheckpointError as error:
            env.close()
            fail(f"cannot resume {run_dir}: {error}")
        print(f"resumed {run_dir} at step {model.num_timesteps}")
    elif args.resume:
        print(f"{run_dir} has no checkpoint yet: starting the run")
    write_text_atomic(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    frozen = None
    if args.opponent == "self":
        frozen = slot["player"] = FrozenOpponent(model, seed=args.seed)
    callback = TrainingCallback(args, run_dir, frozen)
    remaining = max(0, args.total_steps - model.num_timesteps)
    try:
        model.learn(remaining, callback=CallbackList([callback]), reset_num_timesteps=False, log_interval=10)
    except KeyboardInterrupt:
        print("\ninterrupted: saving a checkpoint")
    finally:
        path = save_run(model, run_dir)
        env.close()
    print(f"saved {path} ({model.num_timesteps} steps)")
    return path


if __name__ == "__main__":
    main()
