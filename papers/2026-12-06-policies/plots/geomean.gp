set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'
set output 'geomean.svg'
set title 'clause / OTP, geometric mean over workloads (below 1: clause faster)'
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by 45 right noenhanced
set ylabel 'clause / OTP'
set yrange [0:*]
set grid ytics
set key outside right top noenhanced
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot for [i=2:3] 'geomean.dat' using i:xtic(1) title columnheader(i)
