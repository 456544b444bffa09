-- What a shop knows beyond its catalog: entries a merchant writes (hours, delivery,
-- payments, allergens, returns), cut into chunks that PostgreSQL finds by Spanish
-- full text and by trigrams (word to word); a same-day cache of answers; and product attributes
-- (tags such as «frío» or «sin cafeína», allergens). Every key starts with the bot,
-- so the tables can be distributed by bot_id. Forward-only: never edit once landed.


CREATE TABLE knowledge_entries (
    bot_id      uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    id          bigserial,
    title       text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
    body        text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 20000),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, id)
);

CREATE TABLE knowledge_chunks (
    bot_id      uuid NOT NULL,
    entry_id    bigint NOT NULL,
    ord         integer NOT NULL,
    -- As the merchant wrote it (what an answer quotes).
    text        text NOT NULL,
    -- Lowercase, accents folded, the entry's title in front: what search reads.
    folded      text NOT NULL,
    tsv         tsvector NOT NULL,
    -- From the configured server's /v1/embeddings, when it offers them.
    embedding   real[],
    PRIMARY KEY (bot_id, entry_id, ord),
    FOREIGN KEY (bot_id, entry_id) REFERENCES knowledge_entries (bot_id, id) ON DELETE CASCADE
);
CREATE INDEX knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv);

-- Each chunk's distinct folded words: the bot's vocabulary, which trigram
-- similarity reads word to word («orario» finds «horario», «sopocachy» finds
-- «sopocachi») — measuring it against each chunk's whole text would cost a scan
-- of every chunk per word — and the chunks that hold the words it finds.
CREATE TABLE knowledge_terms (
    bot_id      uuid NOT NULL,
    entry_id    bigint NOT NULL,
    ord         integer NOT NULL,
    term        text NOT NULL,
    PRIMARY KEY (bot_id, entry_id, ord, term),
    FOREIGN KEY (bot_id, entry_id, ord) REFERENCES knowledge_chunks (bot_id, entry_id, ord) ON DELETE CASCADE
);
CREATE INDEX knowledge_terms_by_term ON knowledge_terms (bot_id, term);

-- A change to what the shop knows reaches the next turn, like a catalog change.
CREATE FUNCTION tendero_knowledge_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE bots SET config_version = config_version + 1
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.bot_id ELSE NEW.bot_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER knowledge_entries_changed AFTER INSERT OR UPDATE OR DELETE ON knowledge_entries
    FOR EACH ROW EXECUTE FUNCTION tendero_knowledge_changed();

-- The same question to the same bot on the same day, answered once (seed 004): a
-- row holds the answer as of the bot's configuration version, so any knowledge or
-- catalog edit leaves it behind.
CREATE TABLE knowledge_answers (
    bot_id          uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    day             date NOT NULL,
    config_version  bigint NOT NULL,
    question        text NOT NULL,
    answer          jsonb NOT NULL,
    -- Times it was served from here instead of being worked out again.
    hits            integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, day, config_version, question)
);

ALTER TABLE products
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
    ADD COLUMN allergens text[] NOT NULL DEFAULT '{}';
