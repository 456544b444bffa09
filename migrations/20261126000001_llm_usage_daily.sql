-- Each bot's LLM use per UTC day, kept as calls are recorded, so the daily budget
-- and the usage report read one row instead of summing the day's calls (which
-- grow all day long). Forward-only.

CREATE TABLE llm_usage_daily (
    bot_id       uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    day          date NOT NULL,
    tokens       bigint NOT NULL DEFAULT 0,
    -- Turns the rules answered because the day's budget was spent.
    over_budget  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_id, day)
);

INSERT INTO llm_usage_daily (bot_id, day, tokens, over_budget)
SELECT bot_id, (created_at AT TIME ZONE 'UTC')::date, sum(prompt_tokens + completion_tokens),
       count(*) FILTER (WHERE outcome = 'over_budget')
FROM llm_calls
GROUP BY 1, 2;
