-- Cross-check for monthly_revenue.sql: one row with the overall figures.
-- orders must equal the sum of the monthly 'orders' column, revenue the sum of 'revenue'.
SELECT COUNT(DISTINCT o.id) AS orders,
       printf('%.2f', SUM(oi.quantity * oi.unit_price_cents) / 100.0) AS revenue
FROM orders AS o
JOIN order_items AS oi ON oi.order_id = o.id
WHERE o.status = 'paid';
