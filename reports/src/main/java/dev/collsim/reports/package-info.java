/**
 * Renderers of results. Every command fills one {@link dev.collsim.reports.Table}; the
 * {@link dev.collsim.reports.ReportFormat}s render it as nccl-tests-style text, CSV, JSON or
 * Markdown. Recording stays in the simulator; this package only reads tables.
 */
package dev.collsim.reports;
