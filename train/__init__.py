"""Trainers, callbacks, plotting and the command line (``python -m train``)."""
