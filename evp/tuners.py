"""The old home of the tuner readers, now :mod:`evp.readers.tuners` (deprecated)."""

import warnings

from evp.readers import tuners as _tuners


def __getattr__(name):
    if name in _tuners.__all__:
        warnings.warn(f"evp.tuners.{name} moved to evp.readers.tuners.{name}; "
                      "evp.tuners will be removed", DeprecationWarning, stacklevel=2)
        return getattr(_tuners, name)
    raise AttributeError(f"module 'evp.tuners' has no attribute {name!r}")
