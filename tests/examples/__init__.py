"""Tests of the example programs in examples/."""
