"""NumPy's test_format.py and the save/load tests of test_io.py, run with np.load, np.save
and np.lib.format.read_array routed through npyguard (see conftest.py)."""

from numpy.lib.tests.test_format import *  # noqa: F401,F403
from numpy.lib.tests.test_io import (  # noqa: F401
    TestSaveLoad,
    TestSavezLoad,
    TestPathUsage,
    test_load_refcount,
    test_load_multiple_arrays_until_eof,
    test_npzfile_dict,
    test_savez_nopickle,
    test_ducktyping,
    test_gzip_load,
)
