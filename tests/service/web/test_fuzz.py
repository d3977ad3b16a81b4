"""Schema-driven fuzzing: schemathesis reads the OpenAPI schema that a running server (uvicorn on
loopback) serves, and sends every operation requests made from it, valid ones and deliberately
broken ones. No request may give a 5xx, and every response must match what the schema documents:
its status code, content type and body."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode, checks

from service.web import create_app
from tests.service.web.support import BACKENDS, OPERATIONS, published_database, running_server
from tests.service.web.support import settings as service_settings

EXAMPLES = 20
"""Per operation and mode. The examples are the same in every run (``derandomize``): 20 reach
every line of the service that 40 reach, on both databases (coverage.py, 6,838 lines of
``service/web``, ``jobs``, ``ratings``, ``importers`` and ``exporters`` with either), in half
the time."""


@pytest.fixture(scope="module", params=BACKENDS)
def served_schema(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[schemathesis.BaseSchema]:
    """The schema as a client finds it: fetched from the running server, whose address it then
    sends every request to; once per database backend, as each refuses different text."""
    with published_database(request, tmp_path_factory.mktemp("fuzz")) as engine:
        app = create_app(engine, service_settings(upload_limit_bytes=4096))
        with running_server(app) as url:
            yield schemathesis.openapi.from_url(f"{url}/openapi.json")


WITH_INPUT = [
    operation for operation in OPERATIONS if "{" in operation[1] or operation[0] == "POST"
]
"""Operations with parameters or a body: the only ones broken data can be made for."""

CASES = [
    *(
        pytest.param(*operation, GenerationMode.POSITIVE, id=" ".join(operation))
        for operation in OPERATIONS
    ),
    *(
        pytest.param(*operation, GenerationMode.NEGATIVE, id=" ".join([*operation, "broken"]))
        for operation in WITH_INPUT
    ),
]


def test_the_fuzzer_covers_every_operation(served_schema: schemathesis.BaseSchema) -> None:
    served = {(method.upper(), path) for path, item in served_schema.items() for method in item}
    assert served == set(OPERATIONS)


# schemathesis' own pytest integration (``from_fixture``) reaches into pytest internals that
# pytest 9 removed, so each operation's strategy is run with Hypothesis directly.
@pytest.mark.parametrize(("method", "path", "mode"), CASES)
def test_no_request_gives_a_server_error(
    served_schema: schemathesis.BaseSchema, method: str, path: str, mode: GenerationMode
) -> None:
    operation = served_schema[path][method]
    excluded = []
    if (method, path) == ("POST", "/seed"):
        # Any bytes fit the schema's file field, but few are a participant list: a 422 for a
        # schema-valid upload is the right answer, not a rejection of valid data.
        excluded.append(checks.positive_data_acceptance)

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: schemathesis.Case[Any]) -> None:
        case.call_and_validate(excluded_checks=excluded)

    run()
