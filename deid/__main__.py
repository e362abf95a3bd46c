import sys

from deid.cli import main

sys.exit(main())
