"""The attncheck package's tests. Those that run audits need the attncheck CLI: $ATTNCHECK_CLI (as
attncheck's CTest sets it: a wrong path there fails them) or `attncheck` on PATH; without either
they are skipped."""
import os

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def cli():
    import attncheck

    try:
        return attncheck.find_cli()
    except attncheck.CLINotFoundError as e:
        if os.environ.get("ATTNCHECK_CLI"):
            pytest.fail(str(e))
        pytest.skip(str(e))
