"""The GitHub REST API, as roofbot needs it: one sticky comment, one commit status, an inline
review, a few reads. Import each name from the module that defines it:

- `errors`: one exception hierarchy, GitHubError
- `models`: plain frozen dataclasses and GitHub's limits
- `protocol`: GitHub, the typed operations the action calls
- `transport`: the one retry policy
- `client`: GitHubClient, the PyGithub client (PyGithub is imported on first use: `roofbot
  check` never imports it)"""
