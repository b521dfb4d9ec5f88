"""The local web app: play and watch the games in a browser (``chess-envs serve``)."""
