"""dpmodels: differentially private interpretable models and audits of what they leak."""

__version__ = "0.1.0"
