"""The password hasher of the test processes: Django's own PBKDF2, with fewer rounds.

Django's default (a million rounds) is slow by design (bench/README.md, "tests"), and the
tests hash hundreds (every user made with a password, every sign-up and login). The
algorithm stays pbkdf2_sha256 and a hash records its rounds, so a server the tests start
in another process (gunicorn, real settings) checks these passwords as it checks its own.
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FewRoundsPBKDF2(PBKDF2PasswordHasher):
    iterations = 1000
