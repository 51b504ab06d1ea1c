-- 0007_learning: the learning loop's deterministic core (DESIGN §7, issue 5).
-- Drafts and the draft<->final ledger, the chair's methodology profiles (versioned), lessons and
-- their gate (enforced here, not only in Python), the append-only held-out style history,
-- citations / corroboration / missing precedents, chair feedback, and one audit log.

ALTER TABLE cases ADD COLUMN outcome text;

CREATE TABLE decision_blocks (
    block    text PRIMARY KEY,
    position integer NOT NULL UNIQUE,
    label_he text NOT NULL
);
INSERT INTO decision_blocks (block, position, label_he) VALUES
    ('header', 1, 'כותרת'), ('opening', 2, 'פתח דבר'), ('background', 3, 'רקע עובדתי'),
    ('subject', 4, 'נשוא הערר'), ('decision_under_appeal', 5, 'החלטת הוועדה המקומית'),
    ('appellants_claims', 6, 'טענות העוררים'), ('respondents_claims', 7, 'טענות המשיבים'),
    ('hearing', 8, 'הדיון בפנינו'), ('legal_framework', 9, 'המסגרת הנורמטיבית'),
    ('discussion', 10, 'דיון והכרעה'), ('conclusion', 11, 'סוף דבר'), ('signature', 12, 'חתימה');

-- ---------------------------------------------------------------------------------------------
-- Our drafts: every version kept; blocks as JSON ({block: text}).
CREATE TABLE drafts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number    text NOT NULL REFERENCES cases (case_number) ON UPDATE CASCADE,
    version        integer NOT NULL CHECK (version > 0),
    content        text NOT NULL CHECK (btrim(content) <> ''),
    content_hash   text NOT NULL,
    blocks         jsonb NOT NULL,
    missing_blocks text[] NOT NULL DEFAULT '{}',
    appeal_type    text,
    outcome        text,
    practice_area  text,
    source_path    text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (case_number, version),
    UNIQUE (case_number, content_hash)
);

-- The draft<->final ledger: one pair per case; the status only moves forward, one step at a time.
CREATE TABLE draft_final_pairs (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number       text NOT NULL UNIQUE REFERENCES cases (case_number) ON UPDATE CASCADE,
    status            text NOT NULL CHECK (status IN
                          ('draft_done', 'final_received', 'analyzed', 'lessons_folded')),
    draft_id          bigint REFERENCES drafts (id),
    style_document_id bigint REFERENCES documents (id),
    case_law_id       bigint REFERENCES case_law (id),
    final_version     integer,
    final_blocks      jsonb,
    analysis          jsonb,
    status_changed_at timestamptz NOT NULL DEFAULT now(),
    created_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT analyzed_has_both CHECK (
        status NOT IN ('analyzed', 'lessons_folded')
        OR (draft_id IS NOT NULL AND case_law_id IS NOT NULL)),
    CONSTRAINT final_has_rows CHECK (
        status = 'draft_done' OR (case_law_id IS NOT NULL AND style_document_id IS NOT NULL))
);

CREATE FUNCTION pair_status_rank(status text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
    SELECT array_position(ARRAY['draft_done', 'final_received', 'analyzed', 'lessons_folded'], status)
$$;

CREATE FUNCTION pair_status_forward() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status NOT IN ('draft_done', 'final_received') THEN
            RAISE EXCEPTION 'a pair starts at draft_done or final_received, not %', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        IF pair_status_rank(NEW.status) <> pair_status_rank(OLD.status) + 1 THEN
            RAISE EXCEPTION 'pair of % cannot move from % to % (only forward, one step at a time)',
                OLD.case_number, OLD.status, NEW.status USING ERRCODE = 'check_violation';
        END IF;
        NEW.status_changed_at := now();
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER draft_final_pairs_forward BEFORE INSERT OR UPDATE ON draft_final_pairs
    FOR EACH ROW EXECUTE FUNCTION pair_status_forward();

-- ---------------------------------------------------------------------------------------------
-- The chair's methodology per appeal type ('universal' applies to all), versioned: the current
-- profile here, every earlier version in methodology_profile_versions.
CREATE TABLE methodology_profiles (
    appeal_type text PRIMARY KEY CHECK (appeal_type IN ('universal', 'permit', 'change_of_use',
                    'plan', 'betterment_levy', 'compensation_197', 'procedural')),
    version     integer NOT NULL DEFAULT 1,
    profile     jsonb NOT NULL,
    updated_by  text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE methodology_profile_versions (
    appeal_type text NOT NULL REFERENCES methodology_profiles (appeal_type),
    version     integer NOT NULL,
    profile     jsonb NOT NULL,
    updated_by  text NOT NULL,
    reason      text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (appeal_type, version)
);

INSERT INTO methodology_profiles (appeal_type, updated_by, profile) VALUES ('universal', 'seed', $json$
{
  "blocks": {
    "order": ["header", "opening", "background", "subject", "decision_under_appeal",
              "appellants_claims", "respondents_claims", "hearing", "legal_framework",
              "discussion", "conclusion", "signature"],
    "headings": {
      "opening": "פתח דבר|מבוא",
      "background": "רקע עובדתי|רקע|העובדות",
      "subject": "(?:הבקשה|התכנית|התוכנית|ההחלטה) נשוא הערר",
      "decision_under_appeal": "החלטת הוועדה המקומית|ההחלטה נשוא הערר|החלטת הוועדה",
      "appellants_claims": "טענות העוררי[םן]|טענות העורר(?:ת)?",
      "respondents_claims": "טענות המשיבי[םן]|טענות המשיב(?:ה)?",
      "hearing": "הדיון בפנינו(?: וסיור במקום)?|הדיון שהתקיים בפנינו|סיור במקום",
      "legal_framework": "המסגרת הנורמטיבית|המסגרת המשפטית|הדין החל|התשתית הנורמטיבית",
      "discussion": "דיון והכרעה|דיון|הכרעה",
      "conclusion": "סוף דבר|סיכום|התוצאה"
    },
    "signature_start": "ניתנ(?:ה|ו) היום"
  },
  "golden_ratios": {},
  "discussion_rules": [
    "הדיון נפתח במשפט: \"לאחר שעיינו בכתבי הטענות ושמענו את הצדדים, הגענו למסקנה כי...\"",
    "המסגרת הנורמטיבית נפרדת מהדיון ואינה משולבת בו",
    "כל טענה מרכזית של הצדדים מקבלת מענה בדיון"
  ],
  "content_checklists": {
    "any": ["מספר התיק, הצדדים והרכב הוועדה בכותרת",
            "\"נקדים אחרית לראשית\" בפתח הדבר",
            "התייחסות לסיור במקום, אם נערך",
            "הפניה לסעיפי החוק בתבנית \"סעיף 152(א)(2) לחוק\"",
            "צו להוצאות בסוף הדבר: \"אין צו להוצאות\" או סכום"],
    "accepted": ["מה בדיוק מתקבל ומה ההוראה לוועדה המקומית"],
    "partially_accepted": ["אילו חלקים מתקבלים ואילו נדחים, בנפרד"],
    "rejected": ["הנימוק המכריע לדחייה כבר בפתח הדבר"],
    "remanded": ["למה מוחזר הדיון ומה על הוועדה המקומית לבחון"]
  },
  "transition_phrases": ["נקדים אחרית לראשית",
                         "לאחר שעיינו בכתבי הטענות ושמענו את הצדדים, הגענו למסקנה כי",
                         "אשר על כן"],
  "anti_patterns": ["יש לציין כי", "חשוב להדגיש", "כפי שיפורט להלן", "למעלה מן הצורך",
                    "באופן משמעותי", "כידוע", "אין חולק כי", "הלכה פסוקה היא",
                    "לאור כל האמור לעיל", "כל צד יישא בהוצאותיו"],
  "voice_invariants": ["משפטים קצרים והצהרתיים", "פסקאות ממוספרות ברציפות בבלוקים 2–11",
                       "ללא קישוטים רטוריים"],
  "lessons": []
}
$json$);
INSERT INTO methodology_profiles (appeal_type, updated_by, profile) VALUES
    ('permit', 'seed', '{"content_checklists": {"any": ["ההקלות המבוקשות ותנאי סעיף 147 לחוק", "הנימוק התכנוני"]}}'),
    ('change_of_use', 'seed', '{"content_checklists": {"any": ["תקופת השימוש החורג המבוקשת", "התאמה לסביבה"]}}'),
    ('plan', 'seed', '{"content_checklists": {"any": ["הוראות התכנית הרלוונטיות", "שיקולי תכנון כוללים"]}}'),
    ('betterment_levy', 'seed', '{"content_checklists": {"any": ["אירוע המס והמועד הקובע", "סעיפי התוספת השלישית", "שומת השמאי המכריע"]}}'),
    ('compensation_197', 'seed', '{"content_checklists": {"any": ["הפגיעה הנטענת והתכנית הפוגעת", "סעיף 197 וסעיף 200 לחוק"]}}'),
    ('procedural', 'seed', '{"content_checklists": {"any": ["המועדים וההשתלשלות הדיונית"]}}');
INSERT INTO methodology_profile_versions (appeal_type, version, profile, updated_by, reason)
    SELECT appeal_type, version, profile, updated_by, 'seed' FROM methodology_profiles;

-- ---------------------------------------------------------------------------------------------
-- Lessons and their gate (INV-LRN1). Substance is approved by the chair only; style by the chair
-- or a 2/2 panel; a veto reverts an approved lesson. The trigger below enforces it for every
-- writer, and logs every decision to learning_audit.
CREATE TABLE lesson_categories (
    category text PRIMARY KEY,
    kind     text NOT NULL CHECK (kind IN ('style', 'substance')),
    label_he text NOT NULL
);
INSERT INTO lesson_categories (category, kind, label_he) VALUES
    ('style', 'style', 'סגנון'), ('structure', 'style', 'מבנה'),
    ('legal_lexicon', 'style', 'לקסיקון משפטי'), ('tabular', 'style', 'טבלאי'),
    ('phrase', 'style', 'ניסוח'), ('anti_pattern', 'style', 'ביטוי להימנע ממנו'),
    ('halacha', 'substance', 'הלכה'), ('precedent', 'substance', 'תקדים'),
    ('fact', 'substance', 'עובדה'), ('skill_document', 'substance', 'מסמך מיומנות'),
    ('lessons_document', 'substance', 'מסמך לקחים');

CREATE TABLE decision_lessons (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pair_id       bigint REFERENCES draft_final_pairs (id),
    case_number   text REFERENCES cases (case_number) ON UPDATE CASCADE,
    category      text NOT NULL REFERENCES lesson_categories (category),
    text          text NOT NULL CHECK (btrim(text) <> ''),
    block         text REFERENCES decision_blocks (block),
    appeal_type   text,
    outcome       text,
    source        text NOT NULL CHECK (source IN ('distillation', 'curator', 'chair', 'panel')),
    review_status text NOT NULL DEFAULT 'proposed'
                  CHECK (review_status IN ('proposed', 'approved', 'rejected', 'vetoed')),
    reviewed_by   text,
    reviewed_at   timestamptz,
    review_reason text,
    needs_chair   boolean NOT NULL DEFAULT false,
    folded_into   integer,          -- methodology version the chair folded it into
    dedupe_key    text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX decision_lessons_status_idx ON decision_lessons (review_status, appeal_type);

CREATE TABLE panel_verdicts (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lesson_id  bigint NOT NULL REFERENCES decision_lessons (id),
    model      text NOT NULL CHECK (btrim(model) <> ''),
    vote       text NOT NULL CHECK (vote IN ('approve', 'reject')),
    reason     text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE learning_audit (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text NOT NULL,
    action      text NOT NULL,
    lesson_id   bigint,
    case_number text,
    from_status text,
    to_status   text,
    reason      text,
    details     jsonb NOT NULL DEFAULT '{}'
);

CREATE FUNCTION lesson_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lesson_kind text;
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NEW;
    END IF;
    SELECT kind INTO lesson_kind FROM lesson_categories WHERE category = NEW.category;
    IF NEW.review_status <> 'proposed' AND coalesce(btrim(NEW.reviewed_by), '') = '' THEN
        RAISE EXCEPTION 'a review decision must say who made it' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status = 'approved' AND lesson_kind = 'substance'
       AND NEW.reviewed_by IS DISTINCT FROM 'chair' THEN
        RAISE EXCEPTION 'substance (%) is approved by the chair only, not by %',
            NEW.category, NEW.reviewed_by USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status IN ('approved', 'rejected')
       AND NEW.reviewed_by NOT IN ('chair', 'panel') THEN
        RAISE EXCEPTION 'only the chair or a 2/2 panel decides a lesson, not %', NEW.reviewed_by
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by = 'panel' AND (before IS DISTINCT FROM 'proposed'
                                       OR NEW.review_status NOT IN ('approved', 'rejected')) THEN
        RAISE EXCEPTION 'a panel decides proposed style lessons only' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status = 'vetoed' AND (NEW.reviewed_by IS DISTINCT FROM 'chair'
                                         OR before IS DISTINCT FROM 'approved') THEN
        RAISE EXCEPTION 'only the chair vetoes, and only an approved lesson'
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    INSERT INTO learning_audit (actor, action, lesson_id, case_number, from_status, to_status, reason,
                                details)
    VALUES (coalesce(NEW.reviewed_by, NEW.source), lower(TG_OP) || '_lesson', NEW.id,
            NEW.case_number, before, NEW.review_status, NEW.review_reason,
            jsonb_build_object('category', NEW.category, 'kind', lesson_kind));
    RETURN NEW;
END $$;

CREATE TRIGGER decision_lessons_gate BEFORE INSERT OR UPDATE ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION lesson_gate();

-- ---------------------------------------------------------------------------------------------
-- Held-out style distance: one row per final upload, captured before any lesson of the case is
-- folded. Append-only: the database refuses UPDATE and DELETE.
CREATE TABLE style_distance_history (
    id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pair_id                  bigint NOT NULL REFERENCES draft_final_pairs (id),
    case_number              text NOT NULL,
    final_version            integer NOT NULL,
    captured_at              timestamptz NOT NULL DEFAULT now(),
    appeal_type              text,
    outcome                  text,
    anti_pattern_total       integer NOT NULL,
    final_anti_pattern_total integer NOT NULL,
    ratio_deviation          double precision,
    change_percent           double precision NOT NULL,
    word_edit_distance       integer NOT NULL,
    stylometric_delta        double precision,
    profile_finals           integer NOT NULL,
    lesson_pool_size         integer NOT NULL,
    held_out                 boolean NOT NULL,
    metrics                  jsonb NOT NULL
);

CREATE FUNCTION refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER style_distance_history_append_only BEFORE UPDATE OR DELETE
    ON style_distance_history FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER learning_audit_append_only BEFORE UPDATE OR DELETE
    ON learning_audit FOR EACH ROW EXECUTE FUNCTION refuse_change();

-- ---------------------------------------------------------------------------------------------
-- Citations of internal decisions. One authority per normalized ref (spelling variants share it),
-- linked to the library when the ruling or section is there; corroboration = how many decisions
-- cite it; a ruling not in the library is an open missing precedent.
CREATE TABLE authorities (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ref           text NOT NULL UNIQUE,
    kind          text NOT NULL CHECK (kind IN ('ruling', 'statute')),
    case_law_id   bigint REFERENCES case_law (id) ON DELETE SET NULL,
    corroboration integer NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE decision_citations (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    citing_case_law_id bigint NOT NULL REFERENCES case_law (id) ON DELETE CASCADE,
    authority_id       bigint NOT NULL REFERENCES authorities (id),
    text               text NOT NULL,
    char_start         integer NOT NULL,
    char_end           integer NOT NULL,
    UNIQUE (citing_case_law_id, char_start)
);
CREATE INDEX decision_citations_authority_idx ON decision_citations (authority_id);
CREATE TABLE missing_precedents (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    authority_id bigint NOT NULL UNIQUE REFERENCES authorities (id),
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    first_cited_in text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    resolved_at  timestamptz
);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE chair_feedback (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number text REFERENCES cases (case_number) ON UPDATE CASCADE,
    block       text REFERENCES decision_blocks (block),
    category    text NOT NULL CHECK (category IN ('missing_content', 'wrong_tone',
                    'wrong_structure', 'factual_error', 'style', 'other')),
    text        text NOT NULL CHECK (btrim(text) <> ''),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chair_feedback_created_idx ON chair_feedback (created_at);
