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


def test_a_head_keeps_its_depth_over_a_shallower_de_identification_model(base) -> None:  # type: ignore[no-untyped-def]
    """The shipped head owns 12 layers from layer 0 while the de-identification model under it is
    an 8-layer student: the head's depth comes from its spec (or its tensors), not the base's."""
    import copy

    import torch

    from deid.concepts.model import BranchSpec, branch_depth, branch_state, load_branch, new_branch
    from deid.lab.training.ner import keep_layers

    tags = ("O", "B-X", "I-X")
    n_tags = int(base.config.num_labels)
    deep = new_branch(base, BranchSpec(0, tags, True, n_tags)).eval()
    tensors = branch_state(deep)
    assert branch_depth(tensors) == len(base.bert.encoder.layer) == 12
    student = copy.deepcopy(base)
    keep_layers(student, [0, 4, 8, 11])
    assert len(student.bert.encoder.layer) == 4
    with pytest.raises(ValueError):  # without its depth, the head does not fit the student
        load_branch(student, BranchSpec(0, tags, True, n_tags), tensors)
    loaded = load_branch(student, BranchSpec(0, tags, True, n_tags, n_layers=12), tensors)
    assert len(loaded.layers) == 12
    hidden = torch.randn(2, 5, base.config.hidden_size)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    probs = torch.softmax(torch.randn(2, 5, n_tags), -1)
    with torch.inference_mode():
        want = deep.half().float()(hidden, mask, probs)  # the saved tensors are fp16
        got = loaded(hidden, mask, probs)
    assert torch.allclose(got, want, atol=1e-4)


def test_a_head_s_depth_is_written_and_read_with_its_spec() -> None:
    from deid.concepts.model import BranchSpec

    spec = BranchSpec(0, ("O", "B-X", "I-X"), True, 57, n_layers=12)
    assert BranchSpec.from_json(spec.to_json()) == spec
    older = {k: v for k, v in spec.to_json().items() if k != "n_layers"}  # written before the field
    assert BranchSpec.from_json(older).n_layers is None
