import sys

from arena_client.cli import main

sys.exit(main())
