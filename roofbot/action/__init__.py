"""`roofbot pr`, the GitHub Action, one module per concern; each imports only the ones below it:

- main: the entrypoint, routes the event (a pull request, or a `/roofcheck` command)
- command: `/roofcheck` in a comment, run (command_rules: what it asks, who may run it)
- pull: one pull request checked and reported, start to end
- publish: status, sticky comment, inline review, summary, annotations, outputs (posts)
- evaluate: the Outcome (posts nothing), with chart, review, before_after
- plan: which configuration judges the PR and which records it checks
- instrument: whose instrument judges the PR; instrument_review: what the check-twice found
- policy: base and PR configuration merged, instrument changes, the paths to check
- gather: what the PR brings, from git or the API (head_files; tree_diff past 300 files)
- settings, event: the run's settings and the event it answers; status: a small part
- approval: which `/roofcheck approve <sha>` comments count; approval_lookup: read from GitHub

`roofbot.action.main.main` is what the CLI's `roofbot pr` calls. The package imports nothing
itself: `roofbot preview` and the pre-commit hook use `evaluate` without GitHub's client."""
