-- Top customers by paid revenue on or after :since (YYYY-MM-DD), at most :limit rows.
SELECT c.name,
       c.country,
       COUNT(DISTINCT o.id) AS paid_orders,
       printf('%.2f', SUM(oi.quantity * oi.unit_price_cents) / 100.0) AS revenue
FROM customers AS c
JOIN orders AS o ON o.customer_id = c.id AND o.status = 'paid'
JOIN order_items AS oi ON oi.order_id = o.id
WHERE o.ordered_at >= :since
GROUP BY c.id
ORDER BY SUM(oi.quantity * oi.unit_price_cents) DESC, c.name
LIMIT :limit;
