from planegate.cli import main

raise SystemExit(main())
