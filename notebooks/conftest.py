"""Settings for nbval over the executed notebooks (``make test``)."""


def pytest_collection_modifyitems(items):
    # nbval waits 5 s for a cell's outputs once the cell has run; on a loaded
    # machine a large figure can take longer to arrive, which is no failure of
    # the notebook.
    for item in items:
        if hasattr(item, "output_timeout"):
            item.output_timeout = 60
