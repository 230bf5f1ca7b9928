-- Customers with no paid order (cancelled and refunded orders do not count).
-- The status filter belongs in the ON clause: in WHERE it would turn the LEFT JOIN into an inner join.
SELECT c.id, c.name, c.country, c.created_at
FROM customers AS c
LEFT JOIN orders AS o ON o.customer_id = c.id AND o.status = 'paid'
WHERE o.id IS NULL
ORDER BY c.id;
