import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLOURS = { detector: '#1a73e8', humanizer: '#188038', plagiarism: '#b06000' } as const;
type Product = keyof typeof COLOURS;

/** Words per UTC day and product as lines (uPlot); the table below it carries the same numbers. */
export function UsageChart({ days }: { days: { day: string; words: Record<Product, number> }[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const products = Object.keys(COLOURS) as Product[];
    const data: uPlot.AlignedData = [days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000), ...products.map((product) => days.map((day) => day.words[product]))];
    const chart = new uPlot(
      {
        width: Math.min(900, box.current.clientWidth || 900),
        height: 260,
        scales: { x: { time: true } },
        series: [{}, ...products.map((product) => ({ label: product, stroke: COLOURS[product], width: 2, points: { show: true } }))],
        axes: [{}, { label: 'words' }],
      },
      data,
      box.current,
    );
    return () => chart.destroy();
  }, [days]);
  return <div ref={box} class="chart" role="img" aria-label="Words per day and product over the chosen period (the same numbers are in the table below)" />;
}
