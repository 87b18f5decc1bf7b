"""Shared parts of the mix-back guard experiment (README.md): STFT, ERB bands, features, the network."""
import numpy as np, torch, glob, os
from scipy.signal import resample_poly
W=[2,2,2,2,2,2,2,2,2,2,2,2,2,5,5,7,7,8,10,12,13,15,18,20,24,28,31,37,42,50,56,67]
NB=len(W); F=481
band=np.zeros((F,NB),np.float32); o=0
for b,w in enumerate(W): band[o:o+w,b]=1; o+=w
BAND=torch.tensor(band)
WIN=torch.hann_window(960,periodic=True)
def stft(x): return torch.stft(torch.as_tensor(x),960,480,window=WIN,return_complex=True,center=True).T  # [T,F]
def istft(Z,n): return torch.istft(Z.T,960,480,window=WIN,center=True,length=n)
def feats(X,Y):
    px=(X.abs()**2)@BAND; py=(Y.abs()**2)@BAND
    lx=10*torch.log10(px+1e-10); ly=10*torch.log10(py+1e-10)
    # smoothed look-ahead/behind floor per band (min over +-50 frames of a 3-frame mean)
    sm=torch.nn.functional.avg_pool1d(lx.T[None],3,1,1,count_include_pad=False)[0]
    fl=-torch.nn.functional.max_pool1d(-sm[None],101,1,50)[0].T
    f=torch.cat([(lx-fl)/20,(lx-ly)/20,(ly-fl)/20],1)  # [T, 3*NB]
    return f
def terms(X,Y,S):
    D=S-Y; E=X-Y
    A=(D.abs()**2)@BAND; B=((D*E.conj()).real)@BAND; C=(E.abs()**2)@BAND
    return A,B,C
class Guard(torch.nn.Module):
    def __init__(s,h=48):
        super().__init__()
        L=[];c=3*NB
        for d in [1,2,4,8,16]:
            L+=[torch.nn.Conv1d(c,h,5,dilation=d,padding=2*d),torch.nn.ReLU()]; c=h
        s.body=torch.nn.Sequential(*L); s.out=torch.nn.Conv1d(h,NB,1)
        torch.nn.init.constant_(s.out.bias,-4.0)
    def forward(s,f): return torch.sigmoid(s.out(s.body(f.T[None])))[0].T  # [T,NB]
def apply(X,Y,w): return Y+(w@BAND.T)*(X-Y)
def sisdr(r,e):
    n=min(len(r),len(e)); r=r[:n]-r[:n].mean(); e=e[:n]-e[:n].mean()
    a=np.dot(e,r)/np.dot(r,r); t=a*r; return 10*np.log10(np.sum(t**2)/np.sum((e-t)**2))
