set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'
set output 'latency.svg'
set title 'message delivery latency, 2 workers (medians of per-run percentiles)'
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by 30 right noenhanced
set logscale y
set ylabel 'microseconds'
set grid ytics
set key outside right top noenhanced
plot for [i=2:7] 'latency.dat' using i:xtic(1) title columnheader(i)
