-- «Ya no me recuerdes» also stops a debt's monthly reminder: the sweeper schedules
-- the next payment's only for debts whose person still wants it.
ALTER TABLE fin_debts ADD COLUMN remind boolean NOT NULL DEFAULT true;
