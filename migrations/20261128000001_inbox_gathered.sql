-- A model-bound turn whose customer kept writing is set aside once until the burst
-- goes quiet, then answered whole: `gathered` marks a head that already waited, so
-- the second turn commits whatever comes after it. Forward-only.
ALTER TABLE inbox ADD COLUMN gathered boolean NOT NULL DEFAULT false;
