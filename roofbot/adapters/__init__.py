"""Thin adapters: the repository on disk and in git, the GitHub API, the Actions environment."""
