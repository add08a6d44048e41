"""The clients' shared upload rules: every row of upload-answers.json and retry-delays.json."""

import pytest

from conftest import fixture
from pushledger_sender import _upload

ANSWERS = fixture("upload-answers.json")
DELAYS = fixture("retry-delays.json")


def test_policy_is_the_shared_one():
    policy = DELAYS["policy"]
    assert (_upload.BASE_DELAY_S, _upload.MAX_DELAY_S, _upload.MAX_RETRY_AFTER_S) == (
        policy["base_delay_s"], policy["max_delay_s"], policy["max_retry_after_s"])
    assert _upload.REFUSAL_CODES == set(ANSWERS["refusal_codes"])


@pytest.mark.parametrize("row", ANSWERS["rows"], ids=lambda r: f'{r["status"]}-{r["content_type"]}-{r["outcome"]}')
def test_answer(row):
    assert _upload.classify(row["status"], row["content_type"], row["body"].encode()) == row["outcome"]


def test_no_answer_is_retried():
    assert _upload.classify(None, None, b"") == _upload.RETRY


@pytest.mark.parametrize("row", DELAYS["rows"], ids=lambda r: f'{r["attempt"]}-{r["retry_after"]}-{r["random"]}')
def test_delay(row):
    assert _upload.retry_delay(row["attempt"], row["retry_after"], row["random"]) == pytest.approx(row["delay_s"])
