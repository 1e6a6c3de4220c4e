"""Sphinx settings of the companion website; ``docs/build.py`` (``make site``) runs
Sphinx on a staged copy of this folder with the notebooks and generated pages.

Nothing is executed and nothing is fetched: the notebooks are read with their
committed outputs, and the theme, search and MathJax are served from the site.
"""

import evp

project = "evp"
author = "The evp developers"
copyright = "the evp developers"
release = version = evp.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

# The notebooks are committed executed: render them as they are.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# MathJax 2 from the site itself (jupyter-server-mathjax's copy, staged by build.py);
# MyST's MathJax 3 settings do not apply to it.
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
myst_update_mathjax = False
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processRefs": False, "processEnvironments": False},
    # The package ships the STIX-Web fonts only.
    "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None,
                 "preferredFont": None},
    "showMathMenu": False,
    "messageStyle": "none",
}

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
# Shapes in numpy-style types, "shape (n,)", are read as names, and several
# classes have an attribute n: the reference is ambiguous, not missing.
suppress_warnings = ["ref.python"]

html_theme = "sphinx_book_theme"
html_title = "evp — judge models by their tuning effort"
html_static_path = ["_static"]
html_css_files = ["evp.css"]
html_js_files = ["sort-table.js"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
# Without a default mode the theme reports an error on the console.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "use_download_button": False,
    "use_fullscreen_button": False,
}
exclude_patterns = ["build.py", "_claims.html"]
