-- /metrics counts what is not finished yet (pending and parked events; pending,
-- failed and dead messages) from partial indexes, instead of scanning every row
-- ever received or sent at each scrape. Forward-only.

CREATE INDEX inbox_parked_idx ON inbox (id) WHERE status = 'parked';
