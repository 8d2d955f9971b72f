from roofbot.cli import main

raise SystemExit(main())
