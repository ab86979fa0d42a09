set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'
set output 'steals.svg'
set title 'steals and migrations per run, 2 workers (medians)'
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by 30 right noenhanced
set yrange [0:*]
set grid ytics
set key outside right top noenhanced
plot for [i=2:5] 'steals.dat' using i:xtic(1) title columnheader(i)
