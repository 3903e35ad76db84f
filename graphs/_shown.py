"""How candidates are shown to a model: in which order, under which letter, behind which marker; and how what
the model says about the shown order maps back to the request's candidate indices."""

from __future__ import annotations

import re

from judgegraph.graphs._verdict_format import LETTERS, ModelRuling
from judgegraph.schema import JudgeRequest


def shown_order(order: str, n: int) -> list[int]:
    """Candidate indices in the order shown to the model (`BA` swaps a pair)."""
    return [1, 0] if order == "BA" else list(range(n))


def candidate_blocks(request: JudgeRequest, shown: list[int], nonce: str) -> list[dict[str, str]]:
    """Each shown candidate's letter, marker tag (with the run's nonce, so a response cannot close its own
    marker) and content, for the prompt templates."""
    return [
        {"letter": LETTERS[pos], "tag": f"response_{LETTERS[pos]}_{nonce}", "content": request.candidates[i].content}
        for pos, i in enumerate(shown)
    ]


_BLOCK = re.compile(r"<response_([A-Z]{1,2})_[0-9a-f]+>\n(.*?)\n</response_\1_[0-9a-f]+>", re.DOTALL)


def shown_in(opening: str, request: JudgeRequest) -> list[int] | None:
    """The order a conversation's opening message shows `request`'s candidates in (the request index at each
    position, read from the marked response blocks); None when it does not show exactly these candidates."""
    blocks = [content for _, content in _BLOCK.findall(opening)]
    contents = [c.content for c in request.candidates]
    if request.prompt not in opening or sorted(blocks) != sorted(contents):
        return None
    shown: list[int] = []
    for block in blocks:
        shown.append(next(i for i, c in enumerate(contents) if c == block and i not in shown))
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
