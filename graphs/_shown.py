"""How candidates are shown to a model: in which order, under which letter, behind which marker; and how what
the model says about the shown order maps back to the request's candidate indices."""

from __future__ import annotations

import re

from judgegraph.graphs._verdict_format import LETTERS, ModelRuling
from judgegraph.schema import JudgeRequest
from judgegraph.tools.responses.silence import commits_to_nothing

WITHHELD = "(withheld: this response commits to nothing, so it scores 0 by evidence)"
"""What a model is shown in place of a response that commits to nothing: the "master keys" (":", "Solution:")
that fool model judges never reach one, and the model still knows the response is there."""


def shown_order(order: str, n: int) -> list[int]:
    """Candidate indices in the order shown to the model (`BA` swaps a pair)."""
    return [1, 0] if order == "BA" else list(range(n))


def shown_content(request: JudgeRequest, i: int) -> str:
    """Candidate i as a model is shown it: its content, or `WITHHELD` where it commits to nothing."""
    content = request.candidates[i].content
    return WITHHELD if commits_to_nothing(content, request.prompt) else content


def candidate_blocks(request: JudgeRequest, shown: list[int], nonce: str) -> list[dict[str, str]]:
    """Each shown candidate's letter, marker tag (with the run's nonce, so a response cannot close its own
    marker) and content as shown (`shown_content`), for the prompt templates."""
    return [
        {"letter": LETTERS[pos], "tag": f"response_{LETTERS[pos]}_{nonce}", "content": shown_content(request, i)}
        for pos, i in enumerate(shown)
    ]


_BLOCK = re.compile(r"<response_([A-Z]{1,2})_[0-9a-f]+>\n(.*?)\n</response_\1_[0-9a-f]+>", re.DOTALL)


def shown_in(opening: str, request: JudgeRequest) -> list[int] | None:
    """The order a conversation's opening message shows `request`'s candidates in (the request index at each
    position, read from the marked response blocks); None when it does not show exactly these candidates. A
    block matches a candidate as shown now, or in full (as runs before `WITHHELD` showed every response)."""
    blocks = [content for _, content in _BLOCK.findall(opening)]
    n = len(request.candidates)
    if request.prompt not in opening or len(blocks) != n:
        return None
    forms = [{request.candidates[i].content, shown_content(request, i)} for i in range(n)]
    shown: list[int] = []
    for block in blocks:
        found = next((i for i in range(n) if block in forms[i] and i not in shown), None)
        if found is None:
            return None
        shown.append(found)
    return shown


def as_shown(text: str, shown: list[int]) -> str:
    """A tool's text with `candidate <i>` (request indices) named by the letter the model sees."""
    letter = {i: LETTERS[pos] for pos, i in enumerate(shown)}
    return re.sub(r"\bcandidate (\d+)\b", lambda m: f"response {letter.get(int(m.group(1)), m.group(1))}", text)


def unshuffle(ruling: ModelRuling, shown: list[int]) -> ModelRuling:
    """A ruling about the shown order, expressed in the request's candidate indices."""
    winner = None if ruling.winner is None else shown[ruling.winner]
    scores = None
    if ruling.scores is not None:
        scores = [0.0] * len(shown)
        for pos, i in enumerate(shown):
            scores[i] = ruling.scores[pos]
    return ruling.model_copy(update={"winner": winner, "scores": scores})
