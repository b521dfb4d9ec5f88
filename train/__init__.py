"""Command-line training of AlphaZero and DQN agents (see DESIGN.md section 7); filled in by later issues."""
