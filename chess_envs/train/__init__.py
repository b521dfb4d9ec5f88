"""Training: AlphaZero self-play, distillation from an engine and a masked DQN, over one toolkit
(docs/architecture.md)."""
