"""The AlphaZero agent (``alphazero:PATH?sims=N``) and the batched network evaluator MCTS calls."""

from __future__ import annotations

import numpy as np
import torch

from agents.alphazero.checkpoint import load_network
from agents.alphazero.mcts import MCTS, MCTSConfig, SearchTree
from agents.alphazero.network import AlphaZeroNet, resolve_device
from agents.base import int_option, register_agent
from chess_envs.core import GameState
from chess_envs.games import game_class


class NetworkEvaluator:
    """Planes ``[B, C, H, W]`` (numpy) -> (logits, values) as numpy, one forward pass per call.

    On CUDA the forward pass runs in float16 autocast; the same code runs on the CPU.
    """

    def __init__(self, network: AlphaZeroNet, device: torch.device) -> None:
        self.network = network
        self.device = device

    @torch.inference_mode()
    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        was_training = self.network.training
        self.network.eval()
        batch = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(self.device)
        with torch.autocast(self.device.type, dtype=torch.float16, enabled=self.device.type == "cuda"):
            logits, values = self.network(batch)
        if was_training:
            self.network.train()
        return logits.float().cpu().numpy(), values.float().cpu().numpy()


@register_agent("alphazero")
class AlphaZeroAgent:
    """PUCT search guided by a trained network; deterministic at temperature 0 (the default)."""

    def __init__(
        self,
        game: str,
        path: str | None = None,
        sims: int | str = 200,
        temperature: float | str = 0.0,
        device: str = "auto",
        gumbel: int | str = 0,
        seed: int | str = 0,
        network: AlphaZeroNet | None = None,
        leaves: int | str = 8,
    ) -> None:
        self.name = "alphazero"
        self.device = resolve_device(device)
        if network is None:
            if path is None:
                raise ValueError("the alphazero agent needs a checkpoint: alphazero:PATH?sims=N")
            network, _ = load_network(path, game, self.device)
        self.temperature = float(temperature)
        config = MCTSConfig(
            simulations=int_option(sims, "sims", minimum=1),
            gumbel=bool(int(gumbel)),
            leaves_per_tree=int_option(leaves, "leaves", minimum=1),
        )
        self.num_players = game_class(game).num_players
        self.mcts = MCTS(
            NetworkEvaluator(network, self.device),
            self.num_players,
            config,
            np.random.default_rng(int_option(seed, "seed")),
        )

    def reset(self) -> None:
        """Each move searches afresh from the given state."""

    def select_action(self, state: GameState) -> int:
        tree = SearchTree(state.copy())
        self.mcts.search([tree])
        return self.mcts.choose(tree, self.temperature)
