"""What the API answered, read the same way by every test module."""


def ok(response, status=200):
    """The JSON body of an answer that must have ``status``."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.json()


def errors_of(response, status=400) -> dict:
    """The error body (an object naming the fields at fault) of an answer with ``status``."""
    body = ok(response, status)
    assert isinstance(body, dict) and body, body
    return body
