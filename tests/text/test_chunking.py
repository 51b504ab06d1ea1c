from legal_ai.text.chunking import chunk_text


def words(text: str) -> int:
    return len(text.split())


def test_spans_are_exact_and_respect_pages():
    page1 = "משפט ראשון בעמוד. " * 30
    page2 = "משפט שני בעמוד. " * 30
    text = page1 + "\n\n" + page2
    starts = [0, len(page1) + 2]
    chunks = chunk_text(text, words, page_starts=starts, target_tokens=40, overlap_tokens=6)
    assert chunks, "text must produce chunks"
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert words(chunk.text) <= 40
        page_start = starts[chunk.page - 1]
        page_end = starts[chunk.page] if chunk.page < len(starts) else len(text)
        assert page_start <= chunk.char_start < chunk.char_end <= page_end
    assert {c.page for c in chunks} == {1, 2}
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_consecutive_chunks_overlap_by_whole_sentences():
    text = " ".join(f"משפט מספר {i} כאן." for i in range(40))
    chunks = chunk_text(text, words, target_tokens=20, overlap_tokens=8)
    assert len(chunks) > 2
    for first, second in zip(chunks, chunks[1:], strict=False):
        assert second.char_start < first.char_end  # shared sentences
        assert second.char_start > first.char_start  # but always progress


def test_an_overlong_sentence_is_split_by_words():
    text = "מילה " * 500
    chunks = chunk_text(text.strip(), words, target_tokens=100, overlap_tokens=0)
    assert len(chunks) == 5
    assert all(words(c.text) <= 100 for c in chunks)


def test_empty_text_has_no_chunks():
    assert chunk_text("   \n ", words) == []
