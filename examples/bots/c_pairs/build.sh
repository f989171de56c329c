#!/bin/sh
# Runs once when the bot is validated, in the sandbox; it must leave an executable main.
set -e
cc -O2 -Wall -o main main.c
