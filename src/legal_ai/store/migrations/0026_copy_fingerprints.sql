-- 0026_copy_fingerprints: what the copy check keeps of every text it compares a draft with
-- (issue 14 item 5; README "The copy policy").
--
-- The texts a draft is compared with — the chair's finals (style corpus) and the committee's
-- internal decisions — were read and cut into words on every check (every final and decision,
-- on every `draft add`). Each is now cut once per content: its word 8-gram fingerprints in order
-- (`shingles[i]` is the 8-gram that opens at word i: a stable 64-bit hash of the words'
-- comparison keys, knowledge/copy_policy.fingerprints), under the name of the method that cut it
-- (`method`: another tokenizer or shingle size makes the row stale). A check reads the
-- fingerprints alone to find what a draft shares with each text, and reads a text only when a
-- passage of the draft is attributed to it. A row taken from an older text (its content_hash is
-- not the item's) or by another method is ignored and taken again by the next check; a row goes
-- with its item (ON DELETE CASCADE).

CREATE TABLE copy_fingerprints (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id  bigint UNIQUE REFERENCES documents (id) ON DELETE CASCADE,
    case_law_id  bigint UNIQUE REFERENCES case_law (id) ON DELETE CASCADE,
    content_hash text     NOT NULL,
    method       text     NOT NULL CHECK (btrim(method) <> ''),
    shingles     bigint[] NOT NULL,
    taken_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((document_id IS NULL) <> (case_law_id IS NULL))
);
