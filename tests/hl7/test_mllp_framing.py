from __future__ import annotations

from worker.mllp import Frame, FrameReader, frame

VT, FS, CR = b"\x0b", b"\x1c", b"\r"


def test_frames_split_across_reads_are_reassembled() -> None:
    r = FrameReader()
    data = frame(b"MSH|one") + frame(b"MSH|two")
    out: list[Frame] = []
    for i in range(len(data)):
        out += r.feed(data[i : i + 1])
    assert out == [Frame(b"MSH|one"), Frame(b"MSH|two")]


def test_bytes_outside_frames_are_skipped_and_counted() -> None:
    r = FrameReader()
    assert r.feed(b"garbage\r\n" + frame(b"MSH|x") + b"  ") == [Frame(b"MSH|x")]
    assert r.junk_bytes == len(b"garbage")


def test_a_start_block_inside_a_frame_ends_it_as_bad_framing() -> None:
    r = FrameReader()
    out = r.feed(VT + b"MSH|cut" + frame(b"MSH|next"))
    assert out == [Frame(b"MSH|cut", "bad_framing"), Frame(b"MSH|next")]


def test_the_cr_after_the_end_block_is_optional() -> None:
    r = FrameReader()
    out = r.feed(VT + b"MSH|a" + FS)
    out += r.feed(VT + b"MSH|b" + FS + CR)
    assert out == [Frame(b"MSH|a"), Frame(b"MSH|b")]


def test_a_cr_arriving_alone_after_the_end_block_is_not_junk() -> None:
    r = FrameReader()
    r.feed(VT + b"MSH|a" + FS)
    assert r.feed(CR) == []
    assert r.junk_bytes == 0


def test_an_oversized_frame_is_reported_once_and_skipped_to_its_end() -> None:
    r = FrameReader(max_bytes=10)
    out = r.feed(VT + b"x" * 8)
    out += r.feed(b"y" * 8)
    out += r.feed(b"z" * 50)
    out += r.feed(FS + CR + frame(b"MSH|ok"))
    assert out == [Frame(b"", "message_too_large"), Frame(b"MSH|ok")]
