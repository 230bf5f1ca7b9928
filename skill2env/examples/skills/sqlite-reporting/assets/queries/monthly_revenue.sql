-- Revenue per calendar month from paid orders only.
-- Totals are computed per order first, so joins cannot multiply rows.
-- Amounts are integer cents; convert to currency units once, at the end.
WITH paid_orders AS (
  SELECT o.id, substr(o.ordered_at, 1, 7) AS month
  FROM orders AS o
  WHERE o.status = 'paid'
),
order_totals AS (
  SELECT oi.order_id, SUM(oi.quantity * oi.unit_price_cents) AS total_cents
  FROM order_items AS oi
  GROUP BY oi.order_id
)
SELECT p.month,
       COUNT(*) AS orders,
       printf('%.2f', SUM(t.total_cents) / 100.0) AS revenue
FROM paid_orders AS p
JOIN order_totals AS t ON t.order_id = p.id
GROUP BY p.month
ORDER BY p.month;
