-- A zone may deliver free from an order size (before the fee), as merchants
-- promise («envío gratis desde Bs 200»); the fee stays the backend's.
ALTER TABLE delivery_zones ADD COLUMN free_from_minor bigint CHECK (free_from_minor >= 0);
