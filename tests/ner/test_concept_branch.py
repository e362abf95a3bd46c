"""The concept branch (issue 20): a copy of the de-id encoder's upper layers that trains while the
shared part stays frozen, and reads exactly what the de-id model's own upper layers read."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def base():  # type: ignore[no-untyped-def]
    import torch

    from deid.ner.model import new_token_classifier

    torch.manual_seed(0)
    model = new_token_classifier().eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def test_the_branch_trains_though_the_shared_model_is_frozen(base) -> None:  # type: ignore[no-untyped-def]
    from deid.concepts.model import BranchSpec, new_branch

    branch = new_branch(base, BranchSpec(8, ("O", "B-X", "I-X"), True, int(base.config.num_labels)))
    assert all(p.requires_grad for p in branch.parameters())
    assert not any(p.requires_grad for p in base.parameters())
    assert len(branch.layers) == 4


def test_the_branch_s_layers_start_as_the_shared_model_s_upper_layers(base) -> None:  # type: ignore[no-untyped-def]
    import torch

    from deid.concepts.model import BranchSpec, additive_mask, new_branch, shared_forward

    tok_ids = torch.tensor([[0, 1000, 2000, 3000, 2, 1], [0, 1500, 2, 1, 1, 1]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0]])
    branch = new_branch(base, BranchSpec(6, ("O", "B-X", "I-X"), False, int(base.config.num_labels))).eval()
    with torch.inference_mode():
        hidden, probs = shared_forward(base, tok_ids, mask, 6)
        full = base.bert(input_ids=tok_ids, attention_mask=mask).last_hidden_state
        h = hidden
        for layer in branch.layers:
            out = layer(h, attention_mask=additive_mask(mask, h.dtype))
            h = out[0] if isinstance(out, tuple) else out
    real = mask.bool()
    assert torch.allclose(h[real], full[real], atol=1e-5)
    assert probs.shape[-1] == base.config.num_labels
    stacked = new_branch(base, BranchSpec(6, ("O", "B-X", "I-X"), True, int(base.config.num_labels)))
    with torch.inference_mode(), pytest.raises(ValueError):
        stacked(hidden, mask, None)
