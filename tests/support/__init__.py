"""Helpers shared by the tests: builders, support code and fixed deals."""
