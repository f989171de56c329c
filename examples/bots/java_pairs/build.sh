#!/bin/sh
# Runs once when the bot is validated, in the sandbox; main (a script) then starts the JVM.
set -e
javac -d classes Main.java
