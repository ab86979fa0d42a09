set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'
set output 'time_mbrot.svg'
set title 'mbrot size=240 workers=8 maxiter=100' noenhanced
set xlabel 'workers'
set ylabel 'time_ms (median, 95% CI)' noenhanced
set xtics (1, 2)
set xrange [0.5:2.5]
set yrange [0:*]
set key outside right top noenhanced
set grid
plot 'time_mbrot.dat' index 0 using ($1-0.050):2:3:4 with yerrorlines lw 2 title 'clause erts', 'time_mbrot.dat' index 1 using ($1+0.000):2:3:4 with yerrorlines lw 2 title 'clause global_fifo', 'time_mbrot.dat' index 2 using ($1+0.050):2:3:4 with yerrorlines lw 2 title 'OTP'
