"""What people run: the ``chess-envs`` command line, the UCI engine, the web app and terminal play."""
