"""Matches, tournaments and ratings between agents (see DESIGN.md section 7); filled in by later issues."""
