"""A bot in several files: zip the folder (main.py at the top) and upload the .zip.

cd examples/bots/zip_bot && zip -r ../zip_bot.zip . && cd -
python manage.py play pairs examples/bots/zip_bot.zip random
python manage.py play pairs examples/bots/zip_bot random      # a folder works locally too
"""

import arena_sdk
from strategy import choose

arena_sdk.run(lambda observation, legal: choose(observation, legal, arena_sdk.clock))
