"""Random hyperparameter searches that produce the project's own results."""
