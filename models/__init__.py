"""Model definitions built on framework.nn."""
