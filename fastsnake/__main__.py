from fastsnake.cli import run

run()
