#!/bin/sh
# Runs once when the bot is validated, in the sandbox; it must leave an executable main.
set -e
g++ -O2 -std=c++17 -Wall -o main main.cpp
